import ImageCore
